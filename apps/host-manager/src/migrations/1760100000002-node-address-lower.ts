import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The gateway finds nodes by the lowercased address in a host name. */
export class NodeAddressLower1760100000002 implements MigrationInterface {
  name = 'NodeAddressLower1760100000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX nodes_address_lower_idx ON nodes (lower(address))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX nodes_address_lower_idx`);
  }
}
