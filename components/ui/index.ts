// The UI primitives pages compose (docs/development.md#ui-primitives): a page
// uses these and never re-defines them; test/architecture.test.ts checks.
export { ConfirmAction, ConfirmDialog, type ConfirmableAction } from "./confirm-action";
export { Dialog, DialogFooter, StartDialogFooter } from "./dialog";
export { ErrorBlock } from "./error-block";
export { Field, FieldError, ReasonField, RequiredMark, invalidProps, type FieldControlProps } from "./field";
export { PageShell, type NotFound, type ShellQuery } from "./page-shell";
export { EmptyState, ErrorState, PagedFooter, Skeleton, SkeletonRows, type PagedQuery } from "./states";
export { TabPanel, Tabs, type TabItem } from "./tabs";
