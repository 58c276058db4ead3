import { z } from 'zod';
import { appPasswordView, createAppPasswordBody } from './app-passwords.ts';

/**
 * "Set up a device" on /profile (issue 33): a fresh app password named after the device, and
 * either an Apple configuration profile or the values to type into the device's own settings.
 */
export const DEVICE_KINDS = ['apple', 'android', 'thunderbird', 'outlook', 'other'] as const;
export const deviceKindSchema = z.enum(DEVICE_KINDS, { message: 'Choose a kind of device' });
export type DeviceKind = z.infer<typeof deviceKindSchema>;

/** How each kind of device is named where people choose it. */
export const DEVICE_LABELS: Record<DeviceKind, string> = {
  apple: 'iPhone, iPad or Mac',
  android: 'Android',
  thunderbird: 'Thunderbird',
  outlook: 'Outlook',
  other: 'Other',
};

/** A one-time download link of an Apple configuration profile lives this long. */
export const DEVICE_PROFILE_LINK_MINUTES = 15;

/**
 * Whether this server offers "Set up a device" (issue 42 item 5): only once the operator has named
 * MAIL_HOST, the one host devices reach for mail, calendars and contacts, and it is not a name that
 * means the device itself (`localhost`, `*.localhost`). Otherwise the values would point nowhere.
 */
export const deviceSetupStatusResponse = z.object({ available: z.boolean() });
export type DeviceSetupStatus = z.infer<typeof deviceSetupStatusResponse>;

/** What the console and the API say while devices cannot be set up. */
export const DEVICES_NOT_SET_UP =
  'Mail and calendar apps on devices are not set up on this server yet: ask your administrator (the operator sets MAIL_HOST).';

export const setUpDeviceBody = z.object({
  kind: deviceKindSchema,
  /** The app password's name: the device's, as its owner calls it ("Ada's iPhone"). */
  name: createAppPasswordBody.shape.name,
});
export type SetUpDeviceBody = z.infer<typeof setUpDeviceBody>;

/** `SSL`: TLS from the first byte (993, 465); `STARTTLS`: plain first, then TLS (587). */
export const mailSecuritySchema = z.enum(['SSL', 'STARTTLS']);

export const mailServerSchema = z.object({
  host: z.string(),
  port: z.number(),
  security: mailSecuritySchema,
});

/** What a person types into a device that cannot find the servers itself. */
export const deviceSettingsSchema = z.object({
  /** The user name everywhere: the user's e-mail address. */
  username: z.string(),
  email: z.string(),
  imap: mailServerSchema,
  smtp: mailServerSchema,
  /** The CalDAV and CardDAV server (one URL for both, RFC 6764's context path). */
  davUrl: z.string(),
});
export type DeviceSettings = z.infer<typeof deviceSettingsSchema>;

export const setUpDeviceResponse = z.object({
  appPassword: appPasswordView,
  /** In this answer only: it is never shown again. */
  password: z.string(),
  settings: deviceSettingsSchema,
  /** Apple devices: a one-time link to the configuration profile, and a QR code of it. */
  profile: z
    .object({
      url: z.string(),
      /** An SVG data URL, for an <img>. */
      qrCode: z.string(),
      expiresAt: z.string(),
      /** Signed with the operator's certificate; unsigned profiles show as "Unverified". */
      signed: z.boolean(),
    })
    .nullable(),
});
export type SetUpDeviceResponse = z.infer<typeof setUpDeviceResponse>;

export const mobileconfigBody = z.object({ name: createAppPasswordBody.shape.name });

export const deviceProfileParams = z.object({
  token: z.string().regex(/^[\w-]{20,100}$/, 'expected the link of a device profile'),
});
