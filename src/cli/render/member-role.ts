/**
 * A member's role (ROOT, ADMIN, or none) and its status (INVITED, JOINED...) on rows of their
 * own: on one row, a member without a role showed its status as one (`role JOINED`).
 */
export function roleAndStatus(member: {
  readonly memberType?: string | null | undefined;
  readonly memberStatus: string;
}): Array<[string, string]> {
  return [
    ['role', member.memberType ?? 'none (neither ROOT nor ADMIN)'],
    ['status', member.memberStatus],
  ];
}
