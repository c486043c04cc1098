"""The Qt desktop application. Views draw numpy arrays; they never touch torch."""
