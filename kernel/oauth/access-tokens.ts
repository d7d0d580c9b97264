import { randomUUID } from 'node:crypto';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { isScope, type Scope } from '../../core/scopes';
import { jose, type JWTPayload } from './jose';
import { SIGNING_ALG, type SigningKeys } from './keys';
import { LIFETIMES } from './secrets';

/** RFC 9068: the JWT profile for OAuth access tokens names itself in the header. */
const TOKEN_TYPE = 'at+jwt';

export const ACCESS_TOKEN_ERRORS = {
  malformed: 'Access token is malformed',
  unknownKey: 'Access token was signed with an unknown key',
  badSignature: 'Access token signature is invalid',
  expired: 'Access token has expired',
  otherAudience: 'Access token was issued for another resource',
  otherIssuer: 'Access token was issued by another authorization server',
  invalid: 'Access token is invalid',
} as const;

export interface AccessTokenClaims {
  grantId: string;
  userId: string;
  orgId: string;
  clientId: string;
  intent: string;
  scopes: Scope[];
}

export interface VerifiedAccessToken extends AccessTokenClaims {
  expiresAt: number;
  audience: string;
}

export interface SignOptions {
  /** Defaults to the resource this server protects; tests sign for others to prove they are refused. */
  audience?: string;
  lifetimeSeconds?: number;
  /** Seconds since the epoch to issue at; defaults to now. */
  issuedAt?: number;
}

/** JWT access tokens (jose, ES256, persisted keys named by kid), audience-bound per RFC 8707. */
export class AccessTokens {
  constructor(private readonly keys: SigningKeys, readonly issuer: string, readonly audience: string) {}

  async sign(claims: AccessTokenClaims, options: SignOptions = {}): Promise<{ token: string; expiresIn: number; expiresAt: number }> {
    const { kid, privateKey } = await this.keys.signingKey();
    const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
    const expiresIn = options.lifetimeSeconds ?? LIFETIMES.accessTokenSeconds;
    const token = await new jose.SignJWT({
      client_id: claims.clientId, scope: claims.scopes.join(' '), org_id: claims.orgId, intent: claims.intent, grant_id: claims.grantId,
    })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: TOKEN_TYPE })
      .setIssuer(this.issuer)
      .setSubject(claims.userId)
      .setAudience(options.audience ?? this.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + expiresIn)
      .setJti(randomUUID())
      .sign(privateKey);
    return { token, expiresIn, expiresAt: issuedAt + expiresIn };
  }

  /** Checks signature, issuer, audience and expiry; throws InvalidTokenError with a stable message. */
  async verify(token: string): Promise<VerifiedAccessToken> {
    let header: ReturnType<typeof jose.decodeProtectedHeader>;
    try {
      header = jose.decodeProtectedHeader(token);
    } catch {
      throw new InvalidTokenError(ACCESS_TOKEN_ERRORS.malformed);
    }
    if (header.alg !== SIGNING_ALG || typeof header.kid !== 'string' || header.typ !== TOKEN_TYPE) throw new InvalidTokenError(ACCESS_TOKEN_ERRORS.malformed);
    const key = await this.keys.verificationKey(header.kid);
    if (!key) throw new InvalidTokenError(ACCESS_TOKEN_ERRORS.unknownKey);
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, key, {
        issuer: this.issuer, audience: this.audience, algorithms: [SIGNING_ALG], typ: TOKEN_TYPE,
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'client_id', 'scope', 'org_id', 'intent', 'grant_id'],
      }));
    } catch (error) {
      throw new InvalidTokenError(messageFor(error));
    }
    return claimsOf(payload);
  }

  /** Signature and issuer only, for revocation: an expired token may still name a grant worth revoking. */
  async grantIdOf(token: string): Promise<{ grantId: string; clientId: string } | undefined> {
    try {
      const header = jose.decodeProtectedHeader(token);
      const key = typeof header.kid === 'string' ? await this.keys.verificationKey(header.kid) : undefined;
      if (!key) return undefined;
      const { payload } = await jose.jwtVerify(token, key, { issuer: this.issuer, algorithms: [SIGNING_ALG], currentDate: new Date((Number(jose.decodeJwt(token).iat) || 0) * 1000) });
      return typeof payload.grant_id === 'string' && typeof payload.client_id === 'string' ? { grantId: payload.grant_id, clientId: payload.client_id } : undefined;
    } catch {
      return undefined;
    }
  }
}

function messageFor(error: unknown): string {
  if (error instanceof jose.errors.JWTExpired) return ACCESS_TOKEN_ERRORS.expired;
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return ACCESS_TOKEN_ERRORS.badSignature;
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return ACCESS_TOKEN_ERRORS.otherAudience;
    if (error.claim === 'iss') return ACCESS_TOKEN_ERRORS.otherIssuer;
  }
  if (error instanceof jose.errors.JWSInvalid || error instanceof jose.errors.JWTInvalid) return ACCESS_TOKEN_ERRORS.malformed;
  return ACCESS_TOKEN_ERRORS.invalid;
}

function claimsOf(payload: JWTPayload): VerifiedAccessToken {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    grantId: text(payload.grant_id),
    userId: text(payload.sub),
    orgId: text(payload.org_id),
    clientId: text(payload.client_id),
    intent: text(payload.intent),
    scopes: text(payload.scope).split(' ').filter(isScope),
    expiresAt: Number(payload.exp),
    audience: text(payload.aud),
  };
}
