"use client";
// Who has the desktop, and Take over / Hand back for operators (viewers see
// who has it, and no buttons they could never use: the server drops their
// input anyway).
import { useEffect, useRef, useState } from "react";
import type { ControlReply, DesktopStatus } from "@/lib/desktop-socket";
import type { Me } from "@/lib/trpc";

export function DesktopControls({
  status,
  me,
  canControl,
  live,
  control,
}: {
  status: DesktopStatus;
  me: Me | null;
  canControl: boolean;
  live: boolean;
  control(action: "takeover" | "handback"): Promise<ControlReply>;
}) {
  const [busy, setBusy] = useState<"takeover" | "handback" | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);

  const controller = status.controller;
  const mine = !!me && controller?.id === me.userId;

  async function act(action: "takeover" | "handback") {
    setBusy(action);
    setNotice(null);
    const reply = await control(action);
    setBusy(null);
    if (timer.current) clearTimeout(timer.current);
    // A take over's own reply says nothing the label beside it does not ("You took over; the agent is
    // finishing its current step…", then "You control the desktop"), and would outlive the wait.
    const said = reply.ok && action === "handback" && reply.message !== "The agent continues" ? reply.message : null;
    const message = reply.ok ? (said ?? null) : reply.error;
    setNotice(message);
    if (message && reply.ok) timer.current = setTimeout(() => setNotice(null), 6000);
  }

  return (
    <>
      <ControllerLabel status={status} mine={mine} />
      {live && !controlling(status, mine) && (
        <span
          className="badge badge-outline"
          data-testid="desktop-viewonly"
          title={canControl ? "Take over the desktop to use its keyboard and mouse" : "Only operators can take over the desktop"}
        >
          View only
        </span>
      )}
      {!controller && canControl && (
        <button
          type="button"
          className="btn btn-sm"
          disabled={busy !== null}
          title="Pause the agent after its current step and use the desktop yourself"
          onClick={() => void act("takeover")}
          data-testid="desktop-takeover"
        >
          {busy === "takeover" && <span className="spinner" aria-hidden="true" />}
          Take over
        </button>
      )}
      {controller && (mine || me?.role === "admin") && (
        <button
          type="button"
          className="btn btn-sm btn-primary"
          disabled={busy !== null}
          title={
            mine ? "Give the desktop back to the agent; it is told you used it" : `End ${controller.name}'s control and resume the agent`
          }
          onClick={() => void act("handback")}
          data-testid="desktop-handback"
        >
          {busy === "handback" && <span className="spinner" aria-hidden="true" />}
          {mine ? "Hand back" : `End ${controller.name}'s control`}
        </button>
      )}
      {notice && (
        <span className="desktop-notice small" role="alert" data-testid="desktop-notice">
          {notice}
        </span>
      )}
    </>
  );
}

const controlling = (status: DesktopStatus, mine: boolean) => mine && status.ready;

function ControllerLabel({ status, mine }: { status: DesktopStatus; mine: boolean }) {
  const c = status.controller;
  if (!c) {
    return (
      <span className="live-who" data-testid="desktop-controller" data-controller="">
        The agent has the desktop
      </span>
    );
  }
  const waiting = !status.ready;
  return (
    <span
      className={`live-who ${mine ? "mine" : "other"}`}
      data-testid="desktop-controller"
      data-controller={c.name}
      data-ready={status.ready}
    >
      {waiting && <span className="spinner" aria-hidden="true" />}
      {mine
        ? waiting
          ? "You took over; the agent is finishing its current step…"
          : "You control the desktop"
        : waiting
          ? `${c.name} is taking over; the agent is finishing its current step…`
          : `${c.name} controls the desktop`}
    </span>
  );
}
