"use client";
// Whether the timeline shows routine "policy: allow" notes: off by default,
// remembered per browser.
import { useCallback, useEffect, useState } from "react";

const KEY = "rein.timeline.showAllow";

export function useShowAllow(): [boolean, (show: boolean) => void] {
  const [show, setShow] = useState(false);
  useEffect(() => {
    try {
      setShow(window.localStorage.getItem(KEY) === "1");
    } catch {
      /* storage blocked: the default */
    }
  }, []);
  const set = useCallback((next: boolean) => {
    setShow(next);
    try {
      if (next) window.localStorage.setItem(KEY, "1");
      else window.localStorage.removeItem(KEY);
    } catch {
      /* storage blocked: it holds for this page only */
    }
  }, []);
  return [show, set];
}
