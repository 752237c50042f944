"""The Chat page's parts: the controls and scope of a chat, its dropped files, the saved chats,
a recorded turn as shown, and an agent's steps while it works."""
