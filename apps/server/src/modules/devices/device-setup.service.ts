import {
  DEVICE_PROFILE_LINK_MINUTES,
  DEVICES_NOT_SET_UP,
  type SetUpDeviceBody,
} from '@atrium/contracts/devices';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { decryptSecret, deriveKey, encryptSecret, randomToken, sha256 } from '../../lib/crypto.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { qrCodeDataUrl } from '../auth/factors/authenticator/totp.ts';
import { createAppPassword, type Owner } from '../mail/app-passwords/app-passwords.service.ts';
import { deviceEndpoints, deviceSettings, devicesAvailable } from './device-endpoints.ts';
import { deviceOwnerRow, insertProfileLink, takeProfileLink } from './devices.repository.ts';
import { mobileconfigXml, type ProfileAccount } from './protocols/mobileconfig.ts';
import { signProfile } from './protocols/profile-signing.ts';

/** Where a one-time profile link is opened (public: the phone that scans it has no session). */
export const PROFILE_LINK_PATH = '/api/device-profiles';

const linkKey = (config: Config) => deriveKey(config.secret, 'device-profile-links');

/** No app password is made for a device that could reach nothing (MAIL_HOST not set up). */
function requireDevicesAvailable(config: Config): void {
  if (!devicesAvailable(config)) throw conflict(DEVICES_NOT_SET_UP, undefined, 'devices_not_set_up');
}

type ProfileUser = Awaited<ReturnType<typeof deviceOwnerRow>>;

const accountOf = (user: ProfileUser, password: string): ProfileAccount => ({
  email: user.email,
  displayName: `${user.first_name} ${user.last_name}`.trim() || user.email,
  organizationName: user.organization_name,
  password,
});

/**
 * "Set up a device": a fresh app password named after the device, the values to type, and for
 * Apple devices a one-time link (and its QR code) to a configuration profile holding it. The app
 * password and the link are made in one transaction.
 */
export async function setUpDevice(db: Db, config: Config, owner: Owner, body: SetUpDeviceBody) {
  requireDevicesAvailable(config);
  const user = await deviceOwnerRow(db, owner);
  const token = randomToken(24);
  const expiresAt = new Date(Date.now() + DEVICE_PROFILE_LINK_MINUTES * 60_000);
  const created = await createAppPassword(
    db,
    owner,
    body.name,
    body.kind === 'apple'
      ? (trx, row, password) =>
          insertProfileLink(trx, {
            organizationId: owner.organizationId,
            userId: owner.userId,
            appPasswordId: row.id,
            tokenHash: sha256(token),
            passwordSealed: encryptSecret(linkKey(config), password),
            expiresAt,
          })
      : undefined,
  );
  const url = `${config.publicUrl.origin}${PROFILE_LINK_PATH}/${token}`;
  return {
    ...created,
    settings: deviceSettings(config, user.email),
    profile:
      body.kind === 'apple'
        ? {
            url,
            qrCode: qrCodeDataUrl(url),
            expiresAt: expiresAt.toISOString(),
            signed: config.deviceProfileSigning !== undefined,
          }
        : null,
  };
}

/** The signed-in user's profile, made at once with a new app password named `name`. */
export async function ownMobileconfig(db: Db, config: Config, owner: Owner, name: string) {
  requireDevicesAvailable(config);
  const user = await deviceOwnerRow(db, owner);
  const { password } = await createAppPassword(db, owner, name);
  return signProfile(config, mobileconfigXml(accountOf(user, password), deviceEndpoints(config)));
}

/** A one-time link's profile; gone, expired, revoked or its user suspended: 404, all alike. */
export async function profileFromLink(db: Db, config: Config, token: string) {
  const link = await takeProfileLink(db, sha256(token));
  if (!link) throw notFound('Device profile (the link works once, for a short time)');
  const password = decryptSecret(linkKey(config), link.passwordSealed);
  return signProfile(config, mobileconfigXml(accountOf(link, password), deviceEndpoints(config)));
}
