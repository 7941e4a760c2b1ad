import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints the gateway may reach past the node's ingress (ADR 0092): the
 * `<IPv4>:<port>` the node forwards to the container while the endpoint is
 * ready and online, and every first label of a host name the node serves it
 * at. Rows from before stay null: reached through the ingress, by `host_label`.
 */
export class EndpointForwards1760000009200 implements MigrationInterface {
  name = 'EndpointForwards1760000009200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_endpoints ADD COLUMN forward text NULL, ADD COLUMN hosts text[] NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_endpoints DROP COLUMN hosts, DROP COLUMN forward`);
  }
}
