import { UNITS_PER_CREDIT } from '@ocg/contracts';

/** Units as credits with all six decimals: 1500000 -> "1.500000". Exact (bigint), any size. */
export function formatCredits(units: number | bigint): string {
  const value = BigInt(units);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const per = BigInt(UNITS_PER_CREDIT);
  return `${negative ? '-' : ''}${abs / per}.${(abs % per).toString().padStart(6, '0')}`;
}

/** The message of the 402 a hold that would overdraw gets. */
export function insufficientBalanceMessage(available: number, required: number): string {
  return `Insufficient balance: balance ${formatCredits(available)} credits is less than the ${formatCredits(required)} credits required`;
}
