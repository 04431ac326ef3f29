/** Which web origins the workspaces' publishable keys allow, for browsers' CORS preflights (they carry no key). */
export interface PublicOriginStore {
  /**
   * Whether an active publishable key of any workspace lists `origin` in its `allowed_origins`. An implementation
   * may answer from memory, but a key created, changed or revoked must be seen by the next preflight after it, in
   * every process, as the caches of keys see it: a page on an origin just allowed is not refused its preflight.
   */
  anyKeyAllows(origin: string): Promise<boolean>;
}
