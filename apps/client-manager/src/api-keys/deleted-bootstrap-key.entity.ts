import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A deleted bootstrap key, by its lookup hash: the same ADMIN_API_KEY does not bring it back. */
@Entity({ name: 'deleted_bootstrap_keys' })
export class DeletedBootstrapKeyEntity {
  @PrimaryColumn({ type: 'char', length: 64, name: 'lookup_hash', primaryKeyConstraintName: 'deleted_bootstrap_keys_pkey' })
  lookupHash!: string;

  @Column({ type: 'timestamptz', name: 'deleted_at', default: () => 'now()' })
  deletedAt!: Date;
}
