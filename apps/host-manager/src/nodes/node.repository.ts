import type { DataSource, Repository } from 'typeorm';
import type { NodeSpecs } from '@ocg/contracts';
import { NodeEntity } from './node.entity';

export interface NodeRegistration {
  address: string;
  marketAddress: string;
  specs: NodeSpecs;
  domain: string;
  ingressUrl: string;
  capacity: number;
  /** Written to updatedAt and lastSeenAt. */
  at: Date;
}

/** Every statement against `nodes`; reads load the node's market with it. */
export class NodeRepository {
  private readonly nodes: Repository<NodeEntity>;

  constructor(db: DataSource) {
    this.nodes = db.getRepository(NodeEntity);
  }

  /** Inserts the node, or moves an existing one to this registration. */
  async register({ at, ...node }: NodeRegistration): Promise<void> {
    await this.nodes.upsert({ ...node, updatedAt: at, lastSeenAt: at }, { conflictPaths: ['address'] });
  }

  byAddress(address: string): Promise<NodeEntity | null> {
    return this.nodes.findOne({ where: { address }, relations: { market: true } });
  }

  byAddressIgnoringCase(address: string): Promise<NodeEntity | null> {
    return this.nodes.createQueryBuilder('node').leftJoinAndSelect('node.market', 'market').where('lower(node.address) = lower(:address)', { address }).getOne();
  }

  /** A page of nodes (of one market, or all) by registration, and how many there are. */
  page(query: { marketAddress?: string; take: number; skip: number }): Promise<[NodeEntity[], number]> {
    return this.nodes.findAndCount({
      where: query.marketAddress === undefined ? {} : { marketAddress: query.marketAddress },
      relations: { market: true },
      order: { registeredAt: 'ASC', address: 'ASC' },
      take: query.take,
      skip: query.skip,
    });
  }

  /** The addresses of a market's nodes. */
  async addressesOf(marketAddress: string): Promise<string[]> {
    const rows = await this.nodes.find({ where: { marketAddress }, select: { address: true } });
    return rows.map((n) => n.address);
  }

  /** Every node's market and standing, for the metrics (a market's nodes are a bounded set). */
  standings(): Promise<Pick<NodeEntity, 'address' | 'marketAddress' | 'disabledAt' | 'lastSeenAt'>[]> {
    return this.nodes.find({ select: { address: true, marketAddress: true, disabledAt: true, lastSeenAt: true } });
  }

  /** When an operator disabled the node; null when it is enabled, undefined when it is unknown. */
  async disabledAt(address: string): Promise<Date | null | undefined> {
    const known = await this.nodes.findOne({ where: { address }, select: { address: true, disabledAt: true } });
    return known?.disabledAt;
  }

  /** Records a heartbeat: lastSeenAt, and the specs when the node reported new ones. */
  async seen(address: string, specs?: NodeSpecs): Promise<void> {
    await this.nodes.update({ address }, { lastSeenAt: new Date(), ...(specs ? { specs, updatedAt: new Date() } : {}) });
  }

  /** Marks the node disabled (keeping an earlier mark); false when there is no such node. */
  async disable(address: string): Promise<boolean> {
    const found = await this.nodes
      .createQueryBuilder()
      .update()
      .set({ disabledAt: () => 'COALESCE(disabled_at, now())', updatedAt: () => 'now()' })
      .where('address = :address', { address })
      .execute();
    return Boolean(found.affected);
  }

  /** False when there is no such node. */
  async enable(address: string): Promise<boolean> {
    const found = await this.nodes.update({ address }, { disabledAt: null, updatedAt: new Date() });
    return Boolean(found.affected);
  }

  async delete(address: string): Promise<void> {
    await this.nodes.delete({ address });
  }
}
