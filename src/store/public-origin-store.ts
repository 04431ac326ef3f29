/** Which web origins the workspaces' publishable keys allow, for browsers' CORS preflights (they carry no key). */
export interface PublicOriginStore {
  /** Whether an active publishable key of any workspace lists `origin` in its `allowed_origins`. */
  anyKeyAllows(origin: string): Promise<boolean>;
}
