import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { requestMobileconfig } from './helpers.ts';
import { testEnv } from '../support/test-app.ts';

// An operator's signing certificate: here a self-signed one made with Debian's openssl.
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-profile-signing-'));
const cert = path.join(dir, 'cert.pem');
const key = path.join(dir, 'key.pem');
execFileSync('openssl', [
  'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
  '-subj', '/CN=Atrium profile signing test', '-keyout', key, '-out', cert,
]); // prettier-ignore

const t = useAdminWorld({
  env: { MAIL_HOST: 'mail.atrium.test', DEVICE_PROFILE_SIGNING_CERT: cert, DEVICE_PROFILE_SIGNING_KEY: key },
});

describe('signed configuration profiles', () => {
  it('signs the profile with the operator certificate; the signature verifies and holds the three accounts', async () => {
    const response = await requestMobileconfig(t, 'Signed iPad');
    const signed = path.join(dir, 'signed.mobileconfig');
    writeFileSync(signed, response.rawPayload);
    // CMS SignedData, DER: verified against the certificate, which gives back the plist inside.
    const plist = execFileSync('openssl', [
      'smime', '-verify', '-inform', 'der', '-in', signed, '-CAfile', cert, '-purpose', 'any',
    ], { stdio: ['ignore', 'pipe', 'pipe'] }); // prettier-ignore
    const types = execFileSync(
      'python3',
      ['-c', 'import plistlib,sys; print(",".join(p["PayloadType"] for p in plistlib.loads(sys.stdin.buffer.read())["PayloadContent"]))'],
      { input: plist },
    ).toString().trim(); // prettier-ignore
    expect(types).toBe(
      'com.apple.mail.managed,com.apple.caldav.account,com.apple.carddav.account,com.apple.carddav.account',
    );
  });

  it('needs both settings, and files that exist', () => {
    expect(() => loadConfig(testEnv({ DEVICE_PROFILE_SIGNING_CERT: cert }))).toThrow(
      new ConfigError('DEVICE_PROFILE_SIGNING_KEY', 'is required with DEVICE_PROFILE_SIGNING_CERT'),
    );
    expect(() =>
      loadConfig(
        testEnv({ DEVICE_PROFILE_SIGNING_CERT: '/nonexistent.pem', DEVICE_PROFILE_SIGNING_KEY: key }),
      ),
    ).toThrow('Invalid setting DEVICE_PROFILE_SIGNING_CERT: file /nonexistent.pem does not exist');
  });
});
