import { strykerConfig } from '../../stryker.base.mjs';

// The relay's framing: where every relayed request and answer begins and ends (ADR 0084). A mistake here is
// request smuggling or a cut answer (README.md, "Mutation testing").
const mutate = ['libs/http/src/relay/framing.ts'];

const base = strykerConfig({ project: 'http', root: 'libs/http', mutate });

// The framing's own spec and the relay's, which drives it over real sockets (loopback only, no services).
const specs = ['framing', 'relay'];

export default { ...base, jest: { ...base.jest, config: { testMatch: specs.map((name) => `<rootDir>/test/${name}.spec.ts`) } } };
