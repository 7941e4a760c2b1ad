import http from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';

export interface TokenClaims {
  sub: string;
  scope?: string;
  iss?: string;
  aud?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  typ?: string;
  /** Sign with a key the JWKS does not hold. */
  foreignKey?: boolean;
}

export interface OAuthIssuer {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** The config variables that point client-manager at this issuer. */
  env: Record<string, string>;
  token(claims: TokenClaims): Promise<string>;
  close(): Promise<void>;
}

/** A real issuer's key material behind a real local JWKS HTTP endpoint. */
export async function startOAuthIssuer(): Promise<OAuthIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const foreign = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  const server = http.createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const audience = 'https://api.ocg.test';
  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  return {
    issuer,
    audience,
    jwksUrl,
    env: { OAUTH_ISSUER: issuer, OAUTH_AUDIENCE: audience, OAUTH_JWKS_URL: jwksUrl },
    token: (c) => sign(c.foreignKey ? foreign.privateKey : privateKey, { issuer, audience, ...c }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function sign(key: CryptoKey, c: TokenClaims & { issuer: string; audience: string }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: c.scope ?? '', client_id: 'test-app' })
    .setProtectedHeader({ alg: 'ES256', typ: c.typ ?? 'at+jwt', kid: 'test-key' })
    .setIssuer(c.iss ?? c.issuer)
    .setAudience(c.aud ?? c.audience)
    .setSubject(c.sub)
    .setIssuedAt(now)
    .setJti(`jti-${Math.random().toString(36).slice(2)}`)
    .setExpirationTime(now + (c.expiresIn ?? 300))
    .sign(key);
}
