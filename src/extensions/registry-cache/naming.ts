// Names the renderer derives from a cache (the RegistryCacheConfig name, the Runtime CR uid).
// Kept apart from the cdk8s rendering so the rules can check derived names for collisions.

import { toSubdomainName } from '../../lib/manifest';
import { uuidV5 } from '../../lib/uuid';

/** RegistryCacheConfig name for an upstream: the upstream with ':' as '-' ("my-reg.io:5000" -> "my-reg.io-5000"). */
export function cacheObjectName(upstream: string): string {
  return toSubdomainName(upstream.replace(/:/g, '-'));
}

/**
 * The `uid` KIM uses to map a cache to its Garden secret. KIM normally copies the SKR object's
 * UID; the fleet writes the Runtime CR itself, so it derives a stable one: a UUIDv5 of the
 * lowercase runtime ID and the upstream.
 */
export function cacheUid(runtimeID: string, upstream: string): string {
  return uuidV5(`registry-cache/${runtimeID.toLowerCase()}/${upstream}`);
}

