import { z } from 'zod';
import { count, dateTime, id, named, paging } from '../common/index.ts';

/** Response schemas of buyer personas, variant A (see src/domain/common/responses.ts). */

export const persona = named(
  'Persona',
  'A buyer persona: who asks, in their words, and how many prompts are asked as them',
  z.object({ id, name: z.string(), context: z.string(), promptCount: count, createdAt: dateTime, updatedAt: dateTime }),
);

export const personaList = named(
  'PersonaList',
  'The project’s personas, by name, a page at a time',
  z.object({ personas: z.array(persona), ...paging }),
);

export const personaResponse = named('PersonaResponse', 'The persona', z.object({ persona }));

export const deletedPersona = named(
  'DeletedPersona',
  'The persona removed, and how many prompts no longer name it',
  z.object({ deleted: z.boolean(), persona: z.object({ id, name: z.string() }), promptsCleared: count }),
);
