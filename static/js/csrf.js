// The player's CSRF token, which every request that changes something carries (the page's
// <meta name="csrf-token">, written by base.html). The one place that reads it.
export function csrf() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}
