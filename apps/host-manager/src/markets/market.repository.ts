import { In, type DataSource, type DeepPartial, type Repository } from 'typeorm';
import { pgCode, pgConstraint, UNIQUE_VIOLATION } from '../pg-errors';
import { MarketEntity } from './market.entity';

/** Every statement against `markets`. */
export class MarketRepository {
  private readonly markets: Repository<MarketEntity>;

  constructor(db: DataSource) {
    this.markets = db.getRepository(MarketEntity);
  }

  /** A new, unsaved market. */
  build(fields: DeepPartial<MarketEntity>): MarketEntity {
    return this.markets.create(fields);
  }

  /** Inserts or updates the market; false when another market has its name (compared ignoring case). */
  async save(market: MarketEntity): Promise<boolean> {
    try {
      await this.markets.save(market);
      return true;
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION && pgConstraint(err) === 'markets_name_lower_key') return false;
      throw err;
    }
  }

  list(): Promise<MarketEntity[]> {
    return this.markets.find({ order: { name: 'ASC' } });
  }

  byAddress(address: string): Promise<MarketEntity | null> {
    return this.markets.findOneBy({ address });
  }

  byNameIgnoringCase(name: string): Promise<MarketEntity | null> {
    return this.markets.createQueryBuilder('m').where('lower(m.name) = lower(:name)', { name }).getOne();
  }

  /** Which of these addresses are markets. */
  async existing(addresses: string[]): Promise<Set<string>> {
    const unique = [...new Set(addresses)];
    if (unique.length === 0) return new Set();
    const rows = await this.markets.find({ select: { address: true }, where: { address: In(unique) } });
    return new Set(rows.map((r) => r.address));
  }

  async setJoinTokenHash(address: string, hash: string): Promise<void> {
    await this.markets.update({ address }, { joinTokenHash: hash });
  }
}
