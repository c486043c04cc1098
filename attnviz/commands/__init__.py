"""The commands of ``attnviz COMMAND …``, one module each (its sub-parser, ``add_parser``, and its body, ``run``),
and :mod:`attnviz.commands.shared`, what several of them use. :mod:`attnviz.cli` assembles the parser from them."""
