import { defineModule } from '../module';

/** Email, SMS and WhatsApp templates with immutable, reviewed versions. */
export default defineModule({
  name: 'templates',
  title: 'Templates',
  description: 'Email, SMS and WhatsApp templates with versions: preview, validate, activate, WhatsApp review.',
  tools: [],
  migrations: [],
  scopes: ['templates:read', 'templates:write'],
  routes: [],
});
