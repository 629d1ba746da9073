// Why a write to dist/ (or a lock on it) was refused: a code, a message and the paths concerned.
// Its own module so that the lock and the writer can both name it without importing each other.
export interface Problem {
  code: string;
  message: string;
  paths?: string[];
}
