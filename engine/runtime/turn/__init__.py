"""What one turn is: its data and what the code working on it may ask (``run.Turn``), the
flow stack, the reply it builds, the snapshot a DONE shows, and how its events are driven."""
