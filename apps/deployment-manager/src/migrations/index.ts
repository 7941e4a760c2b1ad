import { Jobs1760000000100 } from './1760000000100-jobs';
import { PageData1760000000200 } from './1760000000200-page-data';
import { ClaimAck1760000000330 } from './1760000000330-claim-ack';
import { ExtendRequests1760000000331 } from './1760000000331-extend-requests';
import { SealedContent1760000003500 } from './1760000003500-sealed-content';
import { OpResources1760000003600 } from './1760000003600-op-resources';
import { ClaimFunction1760000006600 } from './1760000006600-claim-function';
import { ClaimBatchFunction1760000008500 } from './1760000008500-claim-batch-function';
import { EndpointForwards1760000009200 } from './1760000009200-endpoint-forwards';

/** Every migration of deployment-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [
  Jobs1760000000100,
  PageData1760000000200,
  ClaimAck1760000000330,
  ExtendRequests1760000000331,
  SealedContent1760000003500,
  OpResources1760000003600,
  ClaimFunction1760000006600,
  ClaimBatchFunction1760000008500,
  EndpointForwards1760000009200,
];
