import { strykerConfig } from '../../stryker.base.mjs';

export default strykerConfig({ project: 'auth', root: 'libs/auth' });
