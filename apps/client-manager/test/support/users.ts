import type { TestUser } from '../harness';

/** The user record validation answers for a user made by the harness. */
export const userRecordOf = (user: TestUser) => ({
  id: user.id,
  legacyUserId: null,
  email: user.email,
  name: 'Test User',
  provider: 'local',
  providerUsername: null,
  generatedAddress: user.address,
  created_at: expect.any(String),
});
