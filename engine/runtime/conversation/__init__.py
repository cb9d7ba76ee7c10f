"""What the conversation does with a message: the guard, the conversation patterns (a new
request, a correction, a digression, a yes or no), flows taken up again when one on top
ends, and the outcome of an irreversible action told whatever happens to the reply."""
