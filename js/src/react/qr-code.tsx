import { useEffect, useState } from "react";

type Modules = boolean[][];

/** Modules of light margin around the code (the QR standard's quiet zone). */
const QUIET_ZONE = 4;

/**
 * A QR code of `text` as an inline SVG, dark on light whatever the page's colours (scanners need
 * that). The encoder (uqr) is imported on first use, so pages without a QR code never load it.
 */
export function QrCode({ text, label, size = 192, testId }: { text: string; label: string; size?: number; testId?: string }) {
  const [modules, setModules] = useState<Modules | null>(null);
  useEffect(() => {
    let active = true;
    setModules(null);
    void import("uqr").then(({ encode }) => {
      if (active) setModules(encode(text, { ecc: "M", border: QUIET_ZONE }).data);
    });
    return () => {
      active = false;
    };
  }, [text]);

  if (!modules) return <div style={{ width: size, height: size }} aria-busy="true" data-testid={testId} />;
  const count = modules.length;
  let path = "";
  modules.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)));
  return (
    <svg
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${count} ${count}`}
      shapeRendering="crispEdges"
      className="authmw-qr"
      data-testid={testId}
    >
      <rect width={count} height={count} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
