import { z } from 'zod';
import { labelText } from './text.ts';

/** Groups and their members. `Dashboard` is the system admin group. */

export const DASHBOARD_GROUP = 'Dashboard';

export const groupNameSchema = labelText(
  z.string().trim().min(1, 'Enter a group name').max(64, 'Use at most 64 characters'),
);

export const groupSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  isSystem: z.boolean(),
  memberCount: z.number().int(),
  createdAt: z.string(),
});
export type Group = z.infer<typeof groupSchema>;

export const groupsListSchema = z.object({ groups: z.array(groupSchema) });

export const groupInputSchema = z.object({ name: groupNameSchema });
export type GroupInput = z.infer<typeof groupInputSchema>;

export const groupIdParamsSchema = z.object({ id: z.uuid('Not a valid group id') });
export const groupMemberParamsSchema = groupIdParamsSchema.extend({
  userId: z.uuid('Not a valid user id'),
});

export const addMembersSchema = z.object({
  userIds: z.array(z.uuid()).min(1, 'Choose at least one user').max(100, 'Add at most 100 users at once'),
});
export type AddMembersInput = z.infer<typeof addMembersSchema>;

export const groupMemberSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  status: z.enum(['active', 'suspended', 'invited']),
});
export type GroupMember = z.infer<typeof groupMemberSchema>;

export const membersQuerySchema = z.object({ cursor: z.string().max(500).optional() });

export const groupMembersPageSchema = z.object({
  group: groupSchema,
  members: z.array(groupMemberSchema),
  nextCursor: z.string().nullable(),
});
export type GroupMembersPage = z.infer<typeof groupMembersPageSchema>;
