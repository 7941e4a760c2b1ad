import { signForExternal } from '@ocg/auth';
import type { SignMessageRequest, SignMessageResponse, SignMessagesRequest, SignMessagesResponse } from '@ocg/contracts';
import type { Principal } from '../auth/principal';
import type { Clock } from '../shared/clock';
import type { WalletSigners } from './wallet-signers';

/** Signatures with the caller's wallet for external services; the key itself never leaves. */
export class SigningService {
  constructor(
    private readonly signers: WalletSigners,
    private readonly clock: Clock,
  ) {}

  async signOne(caller: Principal, req: SignMessageRequest): Promise<SignMessageResponse> {
    const signer = await this.signers.forUserId(caller.userId);
    return { ...signForExternal(signer, req.message, req.includeTime === true, this.clock()), userAddress: signer.address };
  }

  async signMany(caller: Principal, req: SignMessagesRequest): Promise<SignMessagesResponse> {
    const signer = await this.signers.forUserId(caller.userId);
    const now = this.clock(); // one timestamp for the batch
    const userAddress = signer.address;
    const signatures = req.messages.map((message) => ({ ...signForExternal(signer, message, req.includeTime === true, now), userAddress }));
    return { userAddress, signatures };
  }
}
