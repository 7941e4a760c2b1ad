import { strykerConfig } from '../../stryker.base.mjs';

// The relay's framing: where every relayed request and answer begins and ends (ADR 0084). A mistake here is
// request smuggling or a cut answer (README.md, "Mutation testing"). The route table: which layers a
// request runs (ADR 0089); a mistake there skips a middleware or answers a route express would not reach.
// The held writes: every answer of every service goes through them (ADR 0094); a mistake there loses,
// reorders or never sends an answer.
const mutate = ['libs/http/src/relay/framing.ts', 'libs/http/src/route-table.ts', 'libs/http/src/write-batch.ts'];

const base = strykerConfig({ project: 'http', root: 'libs/http', mutate });

// The framing's own spec and the relay's, which drives it over real sockets (loopback only, no services);
// the route table's, which compares its answers with express's; the held writes' own.
const specs = ['framing', 'relay', 'route-table', 'write-batch'];

export default { ...base, jest: { ...base.jest, config: { testMatch: specs.map((name) => `<rootDir>/test/${name}.spec.ts`) } } };
