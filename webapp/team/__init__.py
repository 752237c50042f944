"""Team mode in the app: the sign-in gate and its cookie, who this session is, and the admins' panels.

``team_state`` is the door every page asks the policy through; it sits below ``webapp.state``.
"""
