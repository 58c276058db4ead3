import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import type { TestApp } from '../support/test-app.ts';

/** An organisation on the site `siteName` (so with a site record to publish), its admin without a password. */
export function createSiteOrganization(app: TestApp, siteName: string) {
  return createOrganization(app.db, app.config, {
    name: `Org ${siteName}`,
    siteName,
    admin: {
      email: `admin@${siteName}.example.com`,
      firstName: 'Ada',
      lastName: 'Admin',
      passwordHash: null,
    },
  });
}
