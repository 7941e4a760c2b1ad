import { strykerConfig } from '../../stryker.base.mjs';

// The gateway's host and route parsing: what decides where a request goes (README.md, "Mutation testing"); which certificate it serves.
const mutate = [
  'apps/gateway/src/ingress/host.ts',
  'apps/gateway/src/ingress/node-routes.ts',
  'apps/gateway/src/ingress/route-lookup.ts',
  'apps/gateway/src/forwarded.ts',
  'apps/gateway/src/pages/negotiate.ts',
  'apps/gateway/src/redirect.ts',
  'apps/gateway/src/edge/routes.ts',
  'apps/gateway/src/certificates.ts',
];

const base = strykerConfig({ project: 'gateway', root: 'apps/gateway', mutate });

// The focused specs of these parsers and the in-process specs that route through them. The others start the
// whole product (services, Docker), which the sandbox does not hold and which would cost minutes per mutant.
const specs = ['parsing/*', 'ingress', 'ingress-policy', 'forwarded', 'pages.negotiation', 'tls', 'edge', 'certificates'];

export default { ...base, jest: { ...base.jest, config: { testMatch: specs.map((name) => `<rootDir>/test/${name}.spec.ts`) } } };
