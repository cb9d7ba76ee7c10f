"""What the user meant: the offline rules (``understand``) and the slot finders, the model's
understanding call (``llm``) and its grounding in what was said, the routing of a message to
a flow, slot validation, and the names templates and conditions see (``context``)."""
