/** The one thing the edge Worker imports from workerd's own `cloudflare:workers` module. */
declare module "cloudflare:workers" {
  export const env: unknown;
}
