import { BlobReaderEntity } from './cas/blob-reader.entity';
import { BlobEntity } from './cas/blob.entity';
import { JobEndpointEntity } from './jobs/job-endpoint.entity';
import { JobExtendRequestEntity } from './jobs/job-extend-request.entity';
import { JobHoldEntity } from './jobs/job-hold.entity';
import { JobOpEntity } from './jobs/job-op.entity';
import { JobPostRequestEntity } from './jobs/job-post-request.entity';
import { JobEntity } from './jobs/job.entity';

/** Every table of deployment-manager's schema, one entity each; they mirror the migrations (test/schema.spec.ts). */
export const entities = [BlobEntity, BlobReaderEntity, JobEntity, JobHoldEntity, JobOpEntity, JobEndpointEntity, JobPostRequestEntity, JobExtendRequestEntity];
