"""The app's Qt-free controller, in rooms: ``runners`` (where jobs run and how results come back), ``state``
(what is published: :class:`SessionState`, :class:`ModelInfo`, :func:`changed`), ``latest`` (the one "latest
request wins" channel), ``base`` (publishing and job bookkeeping), ``decoding`` and ``panels`` (the
requests), ``loading`` (the load job) and ``session`` (:class:`Session` itself). Importing it never imports
torch: the jobs do, on the worker."""

from attnviz.session.runners import FileRunner, InlineRunner, Runner, ThreadRunner
from attnviz.session.session import Session
from attnviz.session.state import ModelInfo, SessionListener, SessionState, changed

__all__ = ["FileRunner", "InlineRunner", "ModelInfo", "Runner", "Session", "SessionListener", "SessionState",
           "ThreadRunner", "changed"]
