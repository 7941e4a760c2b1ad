import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** Content by its id (cid.ts). Sealed at rest (ADR 0035): `bytes` keeps plaintext only until the start-up pass seals it. */
@Entity({ name: 'blobs' })
@Check('blobs_stored_check', 'bytes IS NOT NULL OR sealed IS NOT NULL')
export class BlobEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'blobs_pkey' })
  cid!: string;

  @Column({ type: 'bytea', nullable: true })
  bytes!: Buffer | null;

  @Column({ type: 'integer' })
  size!: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;

  @Column({ type: 'text', nullable: true })
  sealed!: string | null;
}
