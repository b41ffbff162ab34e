"""`fluxgrad.static.nn`: control flow as sub-programs (`cond`, `while_loop`, `scan`)."""
