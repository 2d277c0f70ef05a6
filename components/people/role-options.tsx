// The <option>s of a role select, each with what the role may do.
import type { Role } from "@/server/identity";
import { ROLE_HINTS, ROLE_ORDER } from "@/lib/access";

export function RoleOptions({ hints = false }: { hints?: boolean }) {
  return (
    <>
      {ROLE_ORDER.map((r: Role) => (
        <option key={r} value={r}>
          {hints ? `${r} — ${ROLE_HINTS[r]}` : r}
        </option>
      ))}
    </>
  );
}
