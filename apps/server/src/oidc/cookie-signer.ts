import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * The provider's cookie signatures, as keygrip makes them (HMAC-SHA1, base64url, the key's text
 * as its bytes), so cookies signed before stay valid. keygrip compares through tsscmp, which makes
 * a random key and two more HMACs on every signed cookie read, each with a Buffer key that Node
 * checks slowly: about 0.7 ms of every sign-in (issue 18). Here the key is a KeyObject made once
 * and the comparison is `timingSafeEqual`.
 */
export class CookieSigner {
  private readonly keys: KeyObject[];

  constructor(keys: string[]) {
    if (keys.length === 0) throw new Error('cookie signing needs a key');
    this.keys = keys.map((key) => createSecretKey(Buffer.from(key)));
  }

  sign(data: string): string {
    return signature(data, this.keys[0]!);
  }

  verify(data: string, digest: string): boolean {
    return this.index(data, digest) > -1;
  }

  /** Which key made `digest` (-1 for none), as keygrip's `index`. */
  index(data: string, digest: string): number {
    const given = Buffer.from(digest);
    return this.keys.findIndex((key) => {
      const expected = Buffer.from(signature(data, key));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}

const signature = (data: string, key: KeyObject) => createHmac('sha1', key).update(data).digest('base64url');
