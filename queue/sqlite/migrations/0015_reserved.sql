-- Reserved: version 15 belongs to a change made on a parallel branch.
-- This placeholder only lets migration 0016 load on the sec-limits branch
-- alone (versions must run without gaps); it is dropped when the branches
-- are merged and the real 0015 takes its place. It changes nothing.
SELECT 1;
