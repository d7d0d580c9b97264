import { z } from 'zod';

export const contactIdArg = z.uuid().describe('The contact\'s id');

