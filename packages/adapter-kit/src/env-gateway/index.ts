export {
  Access,
  type AccessOptions,
  ADMIN_CHALLENGE,
  ANONYMOUS,
  type BodyRefusal,
  bodyRefusal,
  errorBody,
  isAdminPath,
  type KeyEntry,
  newKey,
  parseKeys,
} from "./access.js";
export {
  accessFor,
  configFrom,
  type Env,
  generatedKeyLines,
  type ProxyConfig,
  schedulerOptionsOf,
  type TenantCaps,
} from "./config.js";
