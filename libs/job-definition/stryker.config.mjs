import { strykerConfig } from '../../stryker.base.mjs';

export default strykerConfig({ project: 'job-definition', root: 'libs/job-definition' });
