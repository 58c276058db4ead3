import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/**
 * A passkey in software for tests, acting as the authenticator and the browser around it: an
 * ES256 key pair, a credential id, a signature counter, and the WebAuthn JSON the console would
 * send (what @simplewebauthn/browser makes of navigator.credentials).
 */
export class SoftPasskey {
  readonly credentialId = b64url(randomBytes(16));
  counter = 0;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  private readonly options: { rpID: string; origin: string; synced?: boolean; userHandle?: string };

  constructor(options: { rpID: string; origin: string; synced?: boolean; userHandle?: string }) {
    this.options = options;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  private flags(extra: number) {
    // UP, UV, and BE + BS for a synced passkey.
    return 0x01 | 0x04 | (this.options.synced ? 0x08 | 0x10 : 0) | extra;
  }

  private clientData(type: string, challenge: string, origin = this.options.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to registration options (`{ challenge, user: { id } }`), attestation `none`. */
  register(options: { challenge: string; user: { id: string } }, origin?: string) {
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(this.publicJwk.x, 'base64url')],
      [-3, Buffer.from(this.publicJwk.y, 'base64url')],
    ]);
    const credId = Buffer.from(this.credentialId, 'base64url');
    const counter = Buffer.alloc(4);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credId.length);
    const authData = Buffer.concat([
      sha256(this.options.rpID),
      Buffer.from([this.flags(0x40)]),
      counter,
      Buffer.alloc(16),
      length,
      credId,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const attestation = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestation),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to authentication options; each use moves the signature counter on. */
  authenticate(
    options: { challenge: string },
    overrides: { origin?: string; counter?: number; userVerified?: boolean } = {},
  ) {
    this.counter = overrides.counter ?? this.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const flags = this.flags(0) & (overrides.userVerified === false ? ~0x04 : 0xff);
    const authData = Buffer.concat([sha256(this.options.rpID), Buffer.from([flags]), counter]);
    const clientData = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.options.userHandle ? { userHandle: this.options.userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }
}
