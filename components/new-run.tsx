"use client";
// "New run" from anywhere: the dialog, its button, and the "n" shortcut.
import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { Dialog } from "@/components/ui";
import { NewRunForm } from "@/components/new-run-form";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { isTypingTarget } from "@/lib/keyboard";

interface NewRunContext {
  openNewRun(agent?: string): void;
}

const Ctx = createContext<NewRunContext>({ openNewRun: () => {} });

export function NewRunProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ open: boolean; agent?: string }>({ open: false });
  const { canOperate } = useMe();
  const router = useRouter();

  const openNewRun = useCallback((agent?: string) => setState({ open: true, agent }), []);
  const close = useCallback(() => setState((s) => ({ ...s, open: false })), []);

  useEffect(() => {
    if (!canOperate) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "n" || e.repeat || e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      if (isTypingTarget(e.target) || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      openNewRun();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [canOperate, openNewRun]);

  const value = useMemo(() => ({ openNewRun }), [openNewRun]);
  return (
    <Ctx.Provider value={value}>
      {children}
      <Dialog open={state.open} onClose={close} labelledBy="new-run-title" testId="new-run-dialog">
        <NewRunForm
          initialAgent={state.agent}
          onClose={close}
          onCreated={(id) => {
            close();
            router.push(`/runs/${id}`);
          }}
        />
      </Dialog>
    </Ctx.Provider>
  );
}

export function useNewRun() {
  return useContext(Ctx);
}

/** Opens the dialog; viewers see it disabled with the reason. */
export function NewRunButton({
  agent,
  label = "New run",
  testId = "new-run-button",
  primary = true,
  small = false,
}: {
  agent?: string;
  label?: string;
  testId?: string;
  primary?: boolean;
  small?: boolean;
}) {
  const { openNewRun } = useNewRun();
  const { canOperate, isLoading } = useMe();
  return (
    <button
      type="button"
      className={`btn${primary ? " btn-primary" : ""}${small ? " btn-sm" : ""}`}
      onClick={() => openNewRun(agent)}
      disabled={isLoading || !canOperate}
      title={
        isLoading ? undefined : canOperate ? (agent ? `Start a run of ${agent}` : "Start a run (N)") : `${OPERATOR_HINT}; you are a viewer`
      }
      data-testid={testId}
    >
      {primary && (
        <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
          +
        </span>
      )}
      {label}
      {!agent && canOperate && <kbd aria-hidden="true">N</kbd>}
    </button>
  );
}
