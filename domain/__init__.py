"""Pure game rules for hourglass: no I/O, no clock, no global randomness."""
