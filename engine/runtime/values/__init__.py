"""The values a turn reads and returns: the stored session, the events it sends, why it was
refused, what its steps say happens next (``Next``), its deadline. They import nothing else
of the runtime."""
