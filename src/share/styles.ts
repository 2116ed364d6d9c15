import { createHash } from 'node:crypto';
import { SafeHtml } from './html.ts';

/**
 * The page's one stylesheet, inlined, and the CSP source that allows exactly
 * it (its SHA-256): no other style, script or font can run on the page.
 */
export const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f8fafc;color:#111827;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1040px;margin:0 auto;padding:24px 20px 48px}
header.brand{display:flex;align-items:center;gap:14px;margin-bottom:4px}
header.brand img{width:44px;height:44px;object-fit:contain;border-radius:8px;background:#fff}
h1{font-size:24px;margin:0}
h2{font-size:17px;margin:0 0 12px}
.sub{color:#4b5563;margin:0 0 18px}
nav.switcher{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:12px;background:#fff;border:1px solid #e5e7eb;border-radius:12px;padding:10px 14px;margin-bottom:18px}
nav.switcher ul{display:flex;gap:4px;list-style:none;margin:0;padding:0}
nav.switcher a{color:#374151;text-decoration:none;padding:6px 12px;border-radius:8px}
nav.switcher a:hover{background:#f1f5f9}
nav.switcher a[aria-current="page"]{background:#4f46e5;color:#fff}
nav.switcher .steps{display:flex;align-items:center;gap:8px}
nav.switcher .steps span.off{color:#9ca3af;padding:6px 12px}
nav.switcher select,nav.switcher button{font:inherit;padding:5px 8px;border:1px solid #d1d5db;border-radius:8px;background:#fff}
nav.switcher button{background:#111827;color:#fff;border-color:#111827;cursor:pointer}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:12px;margin-bottom:18px}
.card,section{background:#fff;border:1px solid #e5e7eb;border-radius:12px;padding:16px}
.card .label{color:#6b7280;font-size:13px}
.card .value{font-size:28px;font-weight:650;margin:2px 0}
.up{color:#047857}.down{color:#b91c1c}.flat{color:#6b7280}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:12px;margin-bottom:18px}
.charts section{margin-bottom:0}
svg.chart{width:100%;height:auto;display:block}
section{margin-bottom:18px;overflow-x:auto}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #f1f5f9;white-space:nowrap}
th{color:#6b7280;font-weight:500;font-size:13px}
td.num,th.num{text-align:right}
tr.brand td{font-weight:650}
.tag{display:inline-block;font-size:12px;padding:1px 8px;border-radius:99px;background:#eef2ff;color:#3730a3}
.lists{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}
.lists ul{margin:0;padding-left:18px}
.lists li{margin:3px 0;white-space:normal}
.muted{color:#6b7280}
footer{color:#6b7280;font-size:13px;margin-top:24px;text-align:center}
.empty-report{text-align:center;padding:48px 16px}
`.trim();

export const CSS_SOURCE = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** The whole element, interpolated as one value so no formatter can touch the text the hash covers. */
export const STYLE_ELEMENT = new SafeHtml(`<style>${CSS}</style>`);
