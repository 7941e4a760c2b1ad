import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BlobEntity } from './blob.entity';

/** Who may read a blob: its uploader, the poster of a job it defines or results. */
@Entity({ name: 'blob_readers' })
@Index('blob_readers_uploads_idx', ['user_id', 'uploaded_at'], { where: 'uploaded_at IS NOT NULL' })
export class BlobReaderEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'blob_readers_pkey' })
  cid!: string;

  @ManyToOne(() => BlobEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'cid', foreignKeyConstraintName: 'blob_readers_cid_fkey' })
  blob?: BlobEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'blob_readers_pkey' })
  user_id!: string;

  /** Set by an upload; cleared once a job of the user holds the content (it then leaves the upload quota). */
  @Column({ type: 'timestamptz', nullable: true })
  uploaded_at!: Date | null;
}
