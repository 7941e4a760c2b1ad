/**
 * `ocg sign <message>... [--time]`: signs with the caller's wallet (scope
 * wallet:sign), one message through sign-message, several through
 * sign-messages in one call. Prints each signature and the auth header
 * `<message>:<signature>[:<timestamp>]` that node APIs and other services accept.
 */
import type { Command } from 'commander';
import type { SignatureRecord } from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { fields, localTime, print, printJson } from '../output';

interface SignOptions extends GatewayOptions {
  time?: boolean;
  json?: boolean;
}

export function registerSign(program: Command): void {
  withGatewayOptions(program.command('sign <message...>').description('sign messages with your wallet (one call for up to 100)'))
    .option('--time', 'bind the current time into each signature (and print it)')
    .option('--json', 'print the API answer as JSON')
    .action((messages: string[], options: SignOptions) => sign(messages, options));
}

async function sign(messages: string[], options: SignOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const includeTime = Boolean(options.time);
  if (messages.length === 1) {
    const signed = await answer(gateway, () => gateway.client.POST('/auth/sign-message/external', { body: { message: messages[0], includeTime } }));
    if (options.json) return printJson(signed);
    return print(describe(signed));
  }
  const signed = await answer(gateway, () => gateway.client.POST('/auth/sign-messages/external', { body: { messages, includeTime } }));
  if (options.json) return printJson(signed);
  print(signed.signatures.map(describe).join('\n\n'));
}

function describe(s: SignatureRecord): string {
  return fields([
    ['wallet', s.userAddress],
    ['message', s.message],
    ['signature', s.signature],
    ['timestamp', s.timestamp === undefined ? undefined : `${s.timestamp} (${localTime(new Date(s.timestamp).toISOString())})`],
    ['header', [s.message, s.signature, ...(s.timestamp === undefined ? [] : [String(s.timestamp)])].join(':')],
  ]);
}
