// Package dashboard is the merge queue's web dashboard: server-rendered
// pages of every queue (its chain of test runs, entries in queue order,
// recent decisions), each PR's timeline, a queue's history and charts, the
// fragments the pages refresh themselves with, and the sign-in (an API
// token, or GitHub through the App's OAuth web flow) with its server-side
// sessions.
//
// It reads and keeps through the ports it declares, which the process
// wires (package app): QueueReads, the queue's read side as the pages need
// it; SessionStore; the API tokens' store (apitoken.Store); and
// GitHubSignIn, GitHub's side of the sign-in (githubx.SignIn). It imports
// no storage, no use case, no engine and no GitHub client.
//
// Guarantees:
//   - Every page and fragment is behind the configured access (Access):
//     a viewer sees only the repositories their token or GitHub account may
//     read; pages send others to /login, fragments answer 401.
//   - A session id lives only in the browser (HttpOnly, SameSite=Strict,
//     Secure over https); the store keeps its SHA-256. Signing out, expiry
//     and the revocation of the token it was opened with end it at once.
//   - The sign-in forms accept only small same-origin url-encoded POSTs,
//     and a post-sign-in destination stays on this site.
//   - Pages render fully or answer 500: never half a page.
package dashboard
