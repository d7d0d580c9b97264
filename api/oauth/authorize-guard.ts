import type { NextFunction, Request, Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { Intent } from '../../core/intents';
import type { Scope } from '../../core/scopes';
import { clientDisplayName, redirectUriMatches } from '../../kernel/oauth/clients';
import { parseScopeRequest } from '../../kernel/oauth/scopes';
import { logFailure } from './log';
import { sendErrorPage } from './pages';

/** What the guard established, for the provider's authorize() to act on. */
export interface CheckedAuthorization {
  clientName: string;
  redirectUri: string;
  redirectUriExplicit: boolean;
  intent: Intent | null;
  scopes: Scope[];
  resource: string;
}

export const CHECKED_AUTHORIZATION = 'stewardAuthorization';

class AuthorizeProblem extends Error {
  constructor(readonly error: string, message: string) {
    super(message);
  }
}

const MAX_STATE_LENGTH = 1000;
// S256 challenges are the base64url SHA-256 of the verifier: always 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function single(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AuthorizeProblem('invalid_request', `The parameter ${name} was given more than once`);
  return value;
}

function required(params: Record<string, unknown>, name: string, message: string): string {
  const value = single(params, name);
  if (!value) throw new AuthorizeProblem('invalid_request', message);
  return value;
}

function checkPkce(params: Record<string, unknown>): void {
  const method = single(params, 'code_challenge_method');
  const challenge = single(params, 'code_challenge');
  if (!challenge) throw new AuthorizeProblem('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  if (method === 'plain') throw new AuthorizeProblem('invalid_request', 'PKCE method plain is not allowed; use code_challenge_method=S256');
  if (method !== 'S256') throw new AuthorizeProblem('invalid_request', 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(challenge)) throw new AuthorizeProblem('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
}

/**
 * Checks an authorization request before the SDK's handler sees it. Unlike the
 * SDK, every problem here is an error page and never a redirect: until the
 * client, its redirect URI, PKCE and the intent are known good, sending the
 * browser anywhere would help an attacker (open redirector, downgraded PKCE).
 */
export function authorizeGuard(clients: OAuthRegisteredClientsStore, resource: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> ?? {};
      const clientId = required(params, 'client_id', 'client_id is missing');
      const client = await clients.getClient(clientId);
      if (!client) throw new AuthorizeProblem('invalid_client', 'Unknown client_id: register the application first');
      const requested = single(params, 'redirect_uri');
      let redirectUri: string;
      if (requested !== undefined) {
        if (!client.redirect_uris.some((registered) => redirectUriMatches(requested, registered))) {
          throw new AuthorizeProblem('invalid_request', `The redirect_uri is not registered for ${clientDisplayName(client)}; it must match a registered one exactly`);
        }
        redirectUri = requested;
      } else if (client.redirect_uris.length === 1) {
        redirectUri = client.redirect_uris[0];
      } else {
        throw new AuthorizeProblem('invalid_request', 'redirect_uri is required because the client registered more than one');
      }
      const responseType = required(params, 'response_type', 'response_type is missing; use response_type=code');
      if (responseType !== 'code') throw new AuthorizeProblem('unsupported_response_type', `response_type=${responseType} is not supported; only the authorization code flow (response_type=code) is`);
      checkPkce(params);
      const scope = single(params, 'scope');
      const parsed = parseScopeRequest((scope ?? '').split(' '), single(params, 'intent'));
      if (!parsed.ok) throw new AuthorizeProblem(parsed.error, parsed.message);
      const askedResource = single(params, 'resource');
      if (askedResource !== undefined && askedResource !== resource) throw new AuthorizeProblem('invalid_target', `resource must be ${resource}`);
      const state = single(params, 'state');
      if (state !== undefined && state.length > MAX_STATE_LENGTH) throw new AuthorizeProblem('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
      const checked: CheckedAuthorization = {
        clientName: clientDisplayName(client), redirectUri, redirectUriExplicit: requested !== undefined,
        intent: parsed.intent, scopes: parsed.scopes, resource,
      };
      res.locals[CHECKED_AUTHORIZATION] = checked;
      next();
    } catch (error) {
      if (error instanceof AuthorizeProblem) {
        sendErrorPage(res, 400, error.error, error.message);
        return;
      }
      logFailure('authorize check', error);
      sendErrorPage(res, 500, 'server_error', 'Something went wrong on our side; please try again');
    }
  };
}
