"""Flow names and shapes -> new flow files; flow files -> diagrams: tools for writing flows.

- ``scaffold``: ``flowctl new`` (a flow, its conversation tests and its prompt, from
  ``templates/``)
- ``diagram``: ``flowctl graph`` (Mermaid or Graphviz dot)
"""
