import type { MappingPurpose, MappingStatus } from '@atrium/contracts/domains';

/** What each record of the DNS mapping is for, and how its status reads (domain page, Mail Settings). */
export const PURPOSE: Record<MappingPurpose, { title: string; why: string }> = {
  mx: { title: 'Mail exchanger (MX)', why: 'Delivers your domain’s mail to the mail service.' },
  spf: { title: 'SPF', why: 'Lets the mail service send mail for your domain.' },
  dkim: { title: 'DKIM key', why: 'Signs outgoing mail so receivers can check it came from you.' },
  dmarc: { title: 'DMARC policy', why: 'Tells receivers what to do with mail that fails the checks.' },
  site: { title: 'Site (CNAME)', why: 'Opens your organisation’s site at this name.' },
  imaps: {
    title: 'IMAP server (SRV)',
    why: 'Lets mail apps find where to read mail from your address alone.',
  },
  submission: {
    title: 'Sending server (SRV)',
    why: 'Lets mail apps find where to send mail from your address alone.',
  },
  caldavs: {
    title: 'Calendar server (SRV)',
    why: 'Lets calendar apps find your calendars from your address alone.',
  },
  carddavs: {
    title: 'Contacts server (SRV)',
    why: 'Lets contacts apps find your address books from your address alone.',
  },
  autoconfig: {
    title: 'Thunderbird set-up (CNAME)',
    why: 'Thunderbird reads its mail settings from this name.',
  },
  autodiscover: { title: 'Outlook set-up (CNAME)', why: 'Outlook reads its mail settings from this name.' },
  mta_sts: {
    title: 'MTA-STS (TXT)',
    why: 'Tells other mail servers to deliver to you only over a verified encrypted connection.',
  },
  mta_sts_host: {
    title: 'MTA-STS policy (CNAME)',
    why: 'Where other mail servers fetch that policy, over HTTPS.',
  },
  tls_reports: {
    title: 'TLS reports (TXT)',
    why: 'Other mail servers send daily reports of failed encrypted deliveries to postmaster at your domain.',
  },
};

export const STATUS: Record<MappingStatus, { label: string; bg: string; text?: 'dark' }> = {
  ok: { label: 'OK', bg: 'success' },
  missing: { label: 'Missing', bg: 'secondary' },
  different: { label: 'Different', bg: 'warning', text: 'dark' },
  lookup_failed: { label: 'Lookup failed', bg: 'danger' },
  // SPF: published, but a receiver's check of mail from the mail host does not pass.
  does_not_pass: { label: 'Does not pass', bg: 'danger' },
};
