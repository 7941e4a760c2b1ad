/**
 * The project runs on Node 24 LTS (pinned by the `node` dev dependency, whose
 * binary npm puts first on the PATH of every npm script). A run that reaches
 * an older runtime, say a script started with the machine's own `node`,
 * stops here with the way out instead of failing later in odd ways.
 */
export const REQUIRED_NODE_MAJOR = 24;

export function requireSupportedNode(what: string): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return;
  process.stderr.write(
    `${what}: needs Node ${REQUIRED_NODE_MAJOR} or later, this is ${process.version} (${process.execPath}).\n` +
      `Run it through npm (npm test, npm run stack), which uses the project's pinned Node, after \`bash tools/setup.sh\`.\n`,
  );
  process.exit(1);
}
